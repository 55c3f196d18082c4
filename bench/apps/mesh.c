// mesh.c -- an unstructured-mesh hydrodynamics proxy with the shape of LULESH
// (Karlin et al., LLNL-TR-490254): staggered Lagrangian hydrodynamics of an
// ideal gas on a quadrilateral mesh, a Sedov-like blast (all the energy in the
// corner element, symmetry planes x = 0 and y = 0, free outer boundaries).
// Node arrays (positions, velocities, accelerations, forces, masses) and
// element arrays (energy, pressure, artificial viscosity, sound speed,
// density, volumes, corner forces) are tied by indirection: element -> its 4
// nodes (nodelist) and node -> its element corners (a CSR list, as LULESH's
// nodeElemCornerList, so that forces are gathered without races). Each time
// step is 21 short '#pragma omp parallel for schedule(static)' regions over
// nodes or elements, in LULESH's order: forces, acceleration, boundary
// conditions, velocity, position, kinematics, energy, viscosity, equation of
// state, volume, time constraints.
//
// The energy update is the compatible one of Caramana, Burton, Shashkov and
// Whalen (J. Comput. Phys. 146, 1998): the corner forces f = (p + q) dA/dx
// of the step also do the work on the internal energy,
// m_z de_z = -dt sum_c f_zc . v_half(c), with v_half the time-centred nodal
// velocity, so total energy (internal + kinetic) is conserved to round-off.
//
// Verification: total energy conserved to 1e-9 relative; mass: nodal masses
// and the elements' density * volume both sum to the total mass; every
// element keeps a positive volume; the solution is symmetric under x <-> y
// (element (i, j) and (j, i)) to 1e-8 of the largest energy.
//
// Everything is initialised by one thread; one '#pragma omp nexttouch' names
// all node, element and connectivity arrays before the time loop.
//
// usage: mesh [--baseline] [elements per side (default 320)] [steps (30)]
#include "ntapp.h"

static const double GAMMA = 1.4, CFL = 0.5, QLIN = 0.25, QQUAD = 1.5,
                    DVOVMAX = 0.1, E0 = 1.0;

int main(int argc, char **argv) {
  nt_app_init("mesh", &argc, argv);
  long NX = argc > 1 ? atol(argv[1]) : 320;
  int steps = argc > 2 ? atoi(argv[2]) : 30;
  long NN = NX + 1, nel = NX * NX, nnod = NN * NN;
  const double h = 1.0 / NX;

  // --- Allocation ---
  int *nodelist = malloc(4 * nel * sizeof(int));       // elem -> 4 nodes
  int *cornerstart = malloc((nnod + 1) * sizeof(int)); // node -> corners
  int *cornerlist = malloc(4 * nel * sizeof(int));
  int *symmx = malloc(NN * sizeof(int)), *symmy = malloc(NN * sizeof(int));
#define ND(v) double *v = malloc(nnod * sizeof(double))
#define EL(v) double *v = malloc(nel * sizeof(double))
  ND(x); ND(y); ND(xd); ND(yd); ND(xdd); ND(ydd); ND(xh); ND(yh); ND(fx);
  ND(fy); ND(nmass);
  EL(e); EL(p); EL(q); EL(ss); EL(rho); EL(vol0); EL(vnew); EL(v); EL(mass);
  EL(delv); EL(vdov); EL(arealg); EL(ql);
  double *fcx = malloc(4 * nel * sizeof(double)); // corner forces
  double *fcy = malloc(4 * nel * sizeof(double));
  if (!nodelist || !cornerstart || !cornerlist || !symmx || !symmy || !x ||
      !y || !xd || !yd || !xdd || !ydd || !xh || !yh || !fx || !fy || !nmass ||
      !e || !p || !q || !ss || !rho || !vol0 || !vnew || !v || !mass ||
      !delv || !vdov || !arealg || !ql || !fcx || !fcy)
    return perror("malloc"), 2;

  // --- Serial initialisation: mesh, connectivity, state. ---
  for (long j = 0; j < NN; j++)
    for (long i = 0; i < NN; i++) {
      long n = j * NN + i;
      x[n] = i * h, y[n] = j * h;
      xd[n] = yd[n] = xdd[n] = ydd[n] = xh[n] = yh[n] = fx[n] = fy[n] = 0;
      nmass[n] = 0;
    }
  for (long j = 0; j < NX; j++)
    for (long i = 0; i < NX; i++) { // counter-clockwise corners
      long z = j * NX + i, n0 = j * NN + i;
      nodelist[4 * z + 0] = n0, nodelist[4 * z + 1] = n0 + 1;
      nodelist[4 * z + 2] = n0 + NN + 1, nodelist[4 * z + 3] = n0 + NN;
    }
  for (long n = 0; n <= nnod; n++)
    cornerstart[n] = 0;
  for (long k = 0; k < 4 * nel; k++)
    cornerstart[nodelist[k] + 1]++;
  for (long n = 0; n < nnod; n++)
    cornerstart[n + 1] += cornerstart[n];
  {
    int *fill = malloc(nnod * sizeof(int));
    for (long n = 0; n < nnod; n++)
      fill[n] = cornerstart[n];
    for (long k = 0; k < 4 * nel; k++)
      cornerlist[fill[nodelist[k]]++] = (int)k;
    free(fill);
  }
  for (long i = 0; i < NN; i++)
    symmx[i] = (int)(i * NN), symmy[i] = (int)i; // x = 0 column, y = 0 row
  for (long z = 0; z < nel; z++) {
    vol0[z] = h * h, v[z] = vnew[z] = 1.0;
    rho[z] = 1.0, mass[z] = rho[z] * vol0[z];
    e[z] = 0, q[z] = 0, delv[z] = 0, vdov[z] = 0, ql[z] = 0;
    arealg[z] = h / sqrt(2.0);
    for (int c = 0; c < 4; c++)
      fcx[4 * z + c] = fcy[4 * z + c] = 0, nmass[nodelist[4 * z + c]] += mass[z] / 4;
  }
  e[0] = E0 / mass[0]; // the blast
  for (long z = 0; z < nel; z++) {
    p[z] = (GAMMA - 1) * rho[z] * e[z];
    ss[z] = sqrt(GAMMA * (GAMMA - 1) * e[z]);
  }
  double dt = 0.5 * sqrt(vol0[0]) / sqrt(2 * e[0]), t = 0;

  // Static loops over elements (1 or 4 entries per element) and over nodes.
  nt_app_array("nodelist", nodelist, 4 * nel, sizeof(int), NT_OWN_LINEAR, 4, 0, nel, NULL);
  nt_app_array("cornerstart", cornerstart, nnod + 1, sizeof(int), NT_OWN_LINEAR, 1, 0, nnod, NULL);
  nt_app_array("cornerlist", cornerlist, 4 * nel, sizeof(int), NT_OWN_CSR, 1, 0, nnod, cornerstart);
  nt_app_array("symmx", symmx, NN, sizeof(int), NT_OWN_LINEAR, 1, 0, NN, NULL);
  nt_app_array("symmy", symmy, NN, sizeof(int), NT_OWN_LINEAR, 1, 0, NN, NULL);
  const char *nn[] = {"x", "y", "xd", "yd", "xdd", "ydd", "xh", "yh", "fx", "fy", "nmass"};
  double *np_[] = {x, y, xd, yd, xdd, ydd, xh, yh, fx, fy, nmass};
  for (int k = 0; k < 11; k++)
    nt_app_array(nn[k], np_[k], nnod, sizeof(double), NT_OWN_LINEAR, 1, 0, nnod, NULL);
  const char *en[] = {"e", "p", "q", "ss", "rho", "vol0", "vnew", "v", "mass", "delv", "vdov", "arealg", "ql"};
  double *ep_[] = {e, p, q, ss, rho, vol0, vnew, v, mass, delv, vdov, arealg, ql};
  for (int k = 0; k < 13; k++)
    nt_app_array(en[k], ep_[k], nel, sizeof(double), NT_OWN_LINEAR, 1, 0, nel, NULL);
  nt_app_array("fcx", fcx, 4 * nel, sizeof(double), NT_OWN_LINEAR, 4, 0, nel, NULL);
  nt_app_array("fcy", fcy, 4 * nel, sizeof(double), NT_OWN_LINEAR, 4, 0, nel, NULL);

  double etot0 = 0, mtot = 0;
  for (long z = 0; z < nel; z++)
    etot0 += mass[z] * e[z], mtot += mass[z];

  nt_app_start();
  if (nt_app.use_nt) {
#pragma omp nexttouch(nodelist : 4 * nel, cornerstart : nnod + 1,             \
                      cornerlist : 4 * nel, symmx : NN, symmy : NN,           \
                      x : nnod, y : nnod, xd : nnod, yd : nnod, xdd : nnod,   \
                      ydd : nnod, xh : nnod, yh : nnod, fx : nnod, fy : nnod, \
                      nmass : nnod, e : nel, p : nel, q : nel, ss : nel,      \
                      rho : nel, vol0 : nel, vnew : nel, v : nel, mass : nel, \
                      delv : nel, vdov : nel, arealg : nel, ql : nel,         \
                      fcx : 4 * nel, fcy : 4 * nel)
  }
  for (int step = 0; step < steps; step++) {
    // --- LagrangeNodal ---
#pragma omp parallel for schedule(static) // R1 zero nodal forces
    for (long n = 0; n < nnod; n++)
      fx[n] = 0, fy[n] = 0;
#pragma omp parallel for schedule(static) // R2 corner forces (p + q) dA/dx
    for (long z = 0; z < nel; z++) {
      const int *nl = &nodelist[4 * z];
      double pq = p[z] + q[z];
      for (int c = 0; c < 4; c++) {
        int nx1 = nl[(c + 1) & 3], nx3 = nl[(c + 3) & 3];
        fcx[4 * z + c] = pq * 0.5 * (y[nx1] - y[nx3]);
        fcy[4 * z + c] = pq * 0.5 * (x[nx3] - x[nx1]);
      }
    }
#pragma omp parallel for schedule(static) // R3 gather corner forces
    for (long n = 0; n < nnod; n++) {
      double sx = 0, sy = 0;
      for (int k = cornerstart[n]; k < cornerstart[n + 1]; k++)
        sx += fcx[cornerlist[k]], sy += fcy[cornerlist[k]];
      fx[n] += sx, fy[n] += sy;
    }
#pragma omp parallel for schedule(static) // R4 acceleration
    for (long n = 0; n < nnod; n++)
      xdd[n] = fx[n] / nmass[n], ydd[n] = fy[n] / nmass[n];
#pragma omp parallel for schedule(static) // R5 symmetry plane x = 0
    for (long i = 0; i < NN; i++)
      xdd[symmx[i]] = 0;
#pragma omp parallel for schedule(static) // R6 symmetry plane y = 0
    for (long i = 0; i < NN; i++)
      ydd[symmy[i]] = 0;
#pragma omp parallel for schedule(static) // R7 time-centred velocity
    for (long n = 0; n < nnod; n++)
      xh[n] = xd[n] + 0.5 * dt * xdd[n], yh[n] = yd[n] + 0.5 * dt * ydd[n];
#pragma omp parallel for schedule(static) // R8 velocity
    for (long n = 0; n < nnod; n++)
      xd[n] += dt * xdd[n], yd[n] += dt * ydd[n];
#pragma omp parallel for schedule(static) // R9 position
    for (long n = 0; n < nnod; n++)
      x[n] += dt * xh[n], y[n] += dt * yh[n];
    // --- LagrangeElements ---
#pragma omp parallel for schedule(static) // R10 new relative volume
    for (long z = 0; z < nel; z++) {
      const int *nl = &nodelist[4 * z];
      double a = 0.5 * ((x[nl[2]] - x[nl[0]]) * (y[nl[3]] - y[nl[1]]) -
                        (x[nl[3]] - x[nl[1]]) * (y[nl[2]] - y[nl[0]]));
      vnew[z] = a / vol0[z];
      delv[z] = vnew[z] - v[z];
    }
#pragma omp parallel for schedule(static) // R11 characteristic length
    for (long z = 0; z < nel; z++) {
      const int *nl = &nodelist[4 * z];
      double d1 = hypot(x[nl[2]] - x[nl[0]], y[nl[2]] - y[nl[0]]);
      double d2 = hypot(x[nl[3]] - x[nl[1]], y[nl[3]] - y[nl[1]]);
      arealg[z] = vnew[z] * vol0[z] / (d1 > d2 ? d1 : d2);
    }
#pragma omp parallel for schedule(static) // R12 volume rate (div v)
    for (long z = 0; z < nel; z++)
      vdov[z] = delv[z] / (0.5 * (vnew[z] + v[z]) * dt);
#pragma omp parallel for schedule(static) // R13 compatible energy update
    for (long z = 0; z < nel; z++) {
      const int *nl = &nodelist[4 * z];
      double w = 0;
      for (int c = 0; c < 4; c++)
        w += fcx[4 * z + c] * xh[nl[c]] + fcy[4 * z + c] * yh[nl[c]];
      e[z] -= dt * w / mass[z];
    }
#pragma omp parallel for schedule(static) // R14 density
    for (long z = 0; z < nel; z++)
      rho[z] = mass[z] / (vnew[z] * vol0[z]);
#pragma omp parallel for schedule(static) // R15 viscosity gradient term
    for (long z = 0; z < nel; z++)
      ql[z] = vdov[z] < 0 ? -arealg[z] * vdov[z] : 0;
#pragma omp parallel for schedule(static) // R16 artificial viscosity
    for (long z = 0; z < nel; z++)
      q[z] = rho[z] * (QQUAD * ql[z] * ql[z] + QLIN * ss[z] * ql[z]);
#pragma omp parallel for schedule(static) // R17 pressure (EOS)
    for (long z = 0; z < nel; z++)
      p[z] = (GAMMA - 1) * rho[z] * e[z];
#pragma omp parallel for schedule(static) // R18 sound speed
    for (long z = 0; z < nel; z++)
      ss[z] = sqrt(GAMMA * (GAMMA - 1) * (e[z] > 0 ? e[z] : 0));
#pragma omp parallel for schedule(static) // R19 update volumes
    for (long z = 0; z < nel; z++)
      v[z] = vnew[z];
    // --- CalcTimeConstraintsForElems ---
    double dtc = 1e30, dth = 1e30;
#pragma omp parallel for schedule(static) reduction(min : dtc) // R20 Courant
    for (long z = 0; z < nel; z++) {
      double c2 = ss[z] * ss[z];
      if (vdov[z] < 0)
        c2 += QQUAD * QQUAD * arealg[z] * arealg[z] * vdov[z] * vdov[z];
      if (c2 > 0) {
        double d = arealg[z] / sqrt(c2);
        dtc = d < dtc ? d : dtc;
      }
    }
#pragma omp parallel for schedule(static) reduction(min : dth) // R21 hydro
    for (long z = 0; z < nel; z++)
      if (vdov[z] != 0) {
        double d = DVOVMAX / fabs(vdov[z]);
        dth = d < dth ? d : dth;
      }
    t += dt;
    double dtn = CFL * dtc;
    if (2.0 / 3 * dth < dtn)
      dtn = 2.0 / 3 * dth;
    if (dtn > 1.2 * dt)
      dtn = 1.2 * dt;
    dt = dtn;
  }
  nt_app_stop();

  // --- Verification (serial) ---
  double ie = 0, ke = 0, mn = 0, mrho = 0, emax = 0, minv = 1e30, asym = 0;
  for (long z = 0; z < nel; z++) {
    ie += mass[z] * e[z];
    mrho += rho[z] * v[z] * vol0[z];
    emax = fabs(e[z]) > emax ? fabs(e[z]) : emax;
    minv = v[z] < minv ? v[z] : minv;
  }
  for (long n = 0; n < nnod; n++) {
    ke += 0.5 * nmass[n] * (xd[n] * xd[n] + yd[n] * yd[n]);
    mn += nmass[n];
  }
  for (long j = 0; j < NX; j++)
    for (long i = 0; i < j; i++) {
      double d = fabs(e[j * NX + i] - e[i * NX + j]);
      asym = d > asym ? d : asym;
    }
  double erel = fabs(ie + ke - etot0) / etot0;
  int ok = erel < 1e-9 && fabs(mn - mtot) < 1e-12 * mtot &&
           fabs(mrho - mtot) < 1e-12 * mtot && minv > 0 &&
           asym <= 1e-8 * emax && ke > 0;
  printf("mesh: elements=%ld nodes=%ld steps=%d regions_per_step=21 t=%.6e "
         "energy=%.15f (internal %.6f kinetic %.6f) rel_change=%.2e "
         "mass_rel_err=%.1e,%.1e min_volume=%.4f asymmetry=%.1e\n",
         nel, nnod, steps, t, ie + ke, ie, ke, erel,
         fabs(mn - mtot) / mtot, fabs(mrho - mtot) / mtot, minv,
         emax > 0 ? asym / emax : 0);
  return nt_app_report(ok);
}
